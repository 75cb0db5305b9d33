/** The draft open in the item editor (?version=<id>): the version row, the item as the draft has it (the preview
 * read, GET /items/{c}/{pk}?version=), and the item itself (the form's relations are rebuilt against it, and a
 * new-content draft has none: its read answers 403 while the preview answers the draft). The three requests go out
 * together with the editor's own; only the names of newly linked related items follow, when there are any. */
import { useMemo } from 'react';
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { request } from '../../../api/client.ts';
import { ApiError } from '../../../api/errors.ts';
import type { EditorContext } from '../ItemPage.tsx';
import type { FieldInfo } from '../model.ts';
import { versionQuery, type Version } from './api.ts';
import { draftFormValues, draftLookups } from './draft-values.ts';
import { useLookups } from './lookups.ts';

type Row = Record<string, unknown>;

export interface DraftState {
  version: (Version & { delta: Row | null }) | undefined;
  /** The item as the form reads it; null for new content (no row yet); undefined while loading. */
  main: Row | null | undefined;
  /** The draft's values as the form shows them. */
  base: Row | undefined;
  newContent: boolean;
  error: unknown;
  loading: boolean;
  /** The draft's delta holds this field. */
  inDelta(field: string): boolean;
  refetch(): void;
}

export function previewQueryKey(collection: string, id: string, versionId: string) {
  return ['item', collection, id, 'version', versionId];
}

export function useDraft(args: {
  collection: string;
  id: string;
  versionId: string | null;
  infos: FieldInfo[];
  ctx: EditorContext;
  readFields: string[];
  mainQuery: UseQueryResult<Row | null>;
}): DraftState | null {
  const { collection, id, versionId, infos, ctx, readFields, mainQuery } = args;
  const on = versionId !== null;
  const version = useQuery({ ...versionQuery(collection, versionId ?? ''), enabled: on });
  const preview = useQuery({
    queryKey: previewQueryKey(collection, id, versionId ?? ''),
    enabled: on,
    queryFn: ({ signal }) => request<Row>('GET', `/items/${encodeURIComponent(collection)}/${encodeURIComponent(id)}`, {
      query: { fields: readFields, version: versionId! }, signal,
    }),
  });
  const mainMissing = mainQuery.error instanceof ApiError && mainQuery.error.status === 403 && preview.data !== undefined;
  const main: Row | null | undefined = mainMissing ? null : mainQuery.data ?? undefined;
  const specs = useMemo(
    () => (preview.data && main !== undefined ? draftLookups(infos, preview.data, main, ctx).list() : []),
    [preview.data, main, infos, ctx.allFields, ctx.collections], // eslint-disable-line react-hooks/exhaustive-deps
  );
  const lookups = useLookups(specs, on);
  const base = useMemo(
    () => (preview.data && main !== undefined && lookups.ready ? draftFormValues(infos, preview.data, main, ctx, lookups.found) : undefined),
    [preview.data, main, lookups.ready, specs], // eslint-disable-line react-hooks/exhaustive-deps
  );
  if (!on) return null;
  const error = version.error ?? preview.error ?? (mainQuery.error && !mainMissing ? mainQuery.error : null);
  const delta = version.data?.delta ?? {};
  return {
    version: version.data,
    main,
    base,
    newContent: mainMissing,
    error,
    loading: error === null && (!version.data || base === undefined),
    inDelta: (field) => Object.hasOwn(delta, field),
    refetch() {
      void version.refetch();
      void preview.refetch();
      void mainQuery.refetch();
    },
  };
}
