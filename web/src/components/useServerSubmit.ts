import { type FormEvent, useState } from "react";
import { ApiError } from "../api.ts";

/**
 * A form that the server validates: `submit` sends it (`send`), then `done` with the answer; while
 * it is sent `sending`; a refusal is kept as `error` (an ApiError, whose `field` names the input).
 */
export function useServerSubmit<Answer>(send: () => Promise<Answer>, done: (answer: Answer) => void) {
  const [error, setError] = useState<ApiError>();
  const [sending, setSending] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSending(true);
    setError(undefined);
    try {
      done(await send());
    } catch (failure) {
      setError(failure instanceof ApiError ? failure : new ApiError(0, String(failure)));
    } finally {
      setSending(false);
    }
  };
  return { submit, sending, error, setError };
}
