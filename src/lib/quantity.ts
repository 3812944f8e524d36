/** Kubernetes resource quantities (`500m`, `2`, `2Gi`, `1e3`) as numbers, to compare them. Pure. */

/** Each suffix's factor: decimal SI (with n, u, m below one) and binary (Ki … Ei). */
export const quantitySuffixes: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The value of a quantity in its base unit (cores, bytes); undefined when it is not one. */
export function quantityValue(text: string): number | undefined {
  const match = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:([eE][+-]?[0-9]+)|([a-zA-Z]*))$/.exec(
    text.trim(),
  );
  if (!match?.[1]) return undefined;
  const number = Number(match[1]);
  if (match[2]) return number * 10 ** Number(match[2].slice(1));
  const factor = quantitySuffixes[match[3] ?? ""];
  return factor === undefined ? undefined : number * factor;
}
