/** A form that sends one request: busy while it runs, done after, and the error in words when it fails (what was
 * typed stays in the form's own state). */
import { useState, type FormEvent } from 'react';
import { messageOf } from '../api/errors.ts';

export function useFormAction(action: () => Promise<unknown>) {
  const [state, setState] = useState<'idle' | 'busy' | 'done'>('idle');
  const [error, setError] = useState<string | null>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setState('busy');
    setError(null);
    try {
      await action();
      setState('done');
    } catch (err) {
      setError(messageOf(err));
      setState('idle');
    }
  }
  return { state, error, submit };
}
