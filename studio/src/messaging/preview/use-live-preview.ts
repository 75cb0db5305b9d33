/** The live preview's requests, once typing pauses (300 ms): each edited text checked by POST
 * /notify/validate-template (line and message of each error) and the message rendered by POST /notify/preview, all
 * sent together. The last answers stay on screen while new ones are on their way. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { renderPreview, validateTemplate, type Preview, type PreviewRequest, type TemplateError } from '../api.ts';

const DELAY_MS = 300;

/** `value` once its JSON has stopped changing for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const text = JSON.stringify(value);
  const [settled, setSettled] = useState<{ text: string; value: T }>({ text, value });
  useEffect(() => {
    if (text === settled.text) return;
    const t = setTimeout(() => setSettled({ text, value }), ms);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text, ms]);
  return settled.value;
}

export interface LivePreview {
  /** The request the answers below belong to. */
  body: PreviewRequest | null;
  /** The last request that rendered, and its answer: what the pane shows (kept while the text has errors). */
  shown: { body: PreviewRequest; preview: Preview } | null;
  /** Errors per edited text (by the name it was given), empty when valid; undefined until checked. */
  errors: Record<string, TemplateError[]> | undefined;
  preview: ReturnType<typeof useRenderedPreview>;
  /** Typing has changed something not yet sent. */
  stale: boolean;
}

function useRenderedPreview(body: PreviewRequest | null) {
  return useQuery({
    queryKey: ['messaging', 'preview', body],
    enabled: body !== null,
    queryFn: ({ signal }) => renderPreview(body!, signal),
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Infinity,
    // Every pause in typing is a key of its own: they are not kept long.
    gcTime: 20_000,
  });
}

/** `texts`: the template texts being edited, by name (content, subject, layout), each validated on its own. */
export function useLivePreview(body: PreviewRequest | null, texts: Record<string, string>): LivePreview {
  const current = { body, texts };
  const settled = useSettled(current, DELAY_MS);
  const validation = useQuery({
    queryKey: ['messaging', 'validate', settled.texts],
    queryFn: async ({ signal }) => {
      const entries = Object.entries(settled.texts);
      const answers = await Promise.all(entries.map(([, text]) => (text.trim() === '' ? Promise.resolve({ valid: true, errors: [] }) : validateTemplate(text, signal))));
      return Object.fromEntries(entries.map(([name], i) => [name, answers[i].errors]));
    },
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Infinity,
    gcTime: 20_000,
  });
  const preview = useRenderedPreview(settled.body);
  const [shown, setShown] = useState<LivePreview['shown']>(null);
  const answered = preview.isSuccess && !preview.isPlaceholderData ? preview.data : null;
  useEffect(() => {
    if (answered && settled.body) setShown({ body: settled.body, preview: answered });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [answered]);
  return {
    body: settled.body,
    shown: settled.body === null ? null : shown,
    errors: validation.data,
    preview,
    stale: JSON.stringify(current) !== JSON.stringify(settled),
  };
}
