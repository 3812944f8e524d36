/** `text` cut to at most `max` characters, the last of them `…` when it was longer. */
export const clip = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;
