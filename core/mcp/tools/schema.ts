/** describe_schema: the content model (describe.ts). */
import { z } from 'zod';
import { describeSchema } from '../describe.ts';
import { defineTool, READ_ONLY } from '../tool.ts';
import { COLLECTION } from './query-input.ts';

export const describeSchemaTool = defineTool({
  name: 'describe_schema',
  title: 'Describe the content model',
  description: 'The collections you may read, their fields (type, note, required, choices, what a relation points at) and the '
    + 'relations between them. Call it first; pass "collection" for one collection in detail. System collections (svc_*) '
    + 'only with include_system.',
  input: {
    collection: COLLECTION.optional().describe('Only this collection.'),
    include_system: z.boolean().optional().describe('Also the system collections (svc_*) you may read.'),
  },
  annotations: READ_ONLY,
  run: (call, args) => describeSchema(call, { collection: args.collection, includeSystem: args.include_system ?? false }),
});
