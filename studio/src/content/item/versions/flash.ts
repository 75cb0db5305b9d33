/** A sentence for the editor the next screen opens (after promoting or deleting a draft, the item's main version
 * says what happened). Read by the first render after it is set; a render repeated in the same task (React's
 * StrictMode) reads it too. */
let pending: string | null = null;

export function setFlash(text: string): void {
  pending = text;
}

export function takeFlash(): string | null {
  const text = pending;
  if (text !== null) queueMicrotask(() => { if (pending === text) pending = null; });
  return text;
}
