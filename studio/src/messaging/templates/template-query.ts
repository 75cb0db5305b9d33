/** One template as its editor and its contents' editors read it: the template, its contents (GET one includes them)
 * and its layout's name and variables_schema, in one request (the layout through the relation). */
import { queryOptions } from '@tanstack/react-query';
import { request } from '../../api/client.ts';
import { jsonValue, type Channel, type Template, type TemplateContent } from '../api.ts';

export interface LoadedTemplate extends Omit<Template, 'layout_id' | 'contents'> {
  layout_id: string | null;
  layout: { id: string; name: string; variables_schema: unknown } | null;
  contents: TemplateContent[];
}

export const templateQuery = (id: string) => queryOptions({
  queryKey: ['messaging', 'template', id],
  queryFn: async ({ signal }) => {
    const raw = await request<Record<string, unknown>>('GET', `/notify/templates/${encodeURIComponent(id)}`, {
      query: { fields: ['*', 'layout_id.id', 'layout_id.name', 'layout_id.variables_schema'] }, signal,
    });
    const layout = raw.layout_id && typeof raw.layout_id === 'object' ? raw.layout_id as { id: string; name: string; variables_schema: unknown } : null;
    return {
      ...(raw as unknown as Template),
      channels: jsonValue<Channel[]>(raw.channels) ?? [],
      variables_schema: jsonValue(raw.variables_schema),
      layout_id: layout?.id ?? (typeof raw.layout_id === 'string' ? raw.layout_id : null),
      layout: layout ? { ...layout, variables_schema: jsonValue(layout.variables_schema) } : null,
      contents: (raw.contents as TemplateContent[] | undefined) ?? [],
    } satisfies LoadedTemplate;
  },
});
