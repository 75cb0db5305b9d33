/** The sidebar of an existing item: revisions and comments (filled in by the next commit). */
import type { EditorContext } from '../ItemPage.tsx';
import type { FieldInfo } from '../model.ts';

export function Sidebar(_props: { ctx: EditorContext; id: string; current: Record<string, unknown>; infos: FieldInfo[]; mayUpdate(field: string): boolean; onReverted(): Promise<void>; dirty: boolean }) {
  return null;
}
