/** What an agent is told when it connects (the `instructions` of the initialize answer) and by the system_prompt tool:
 * the settings' system_prompt, or these built-in instructions that say how this server works. */
import type { McpSettings } from './settings.ts';

export function defaultInstructions(settings: McpSettings, maxRows: number): string {
  const lines = [
    'You are connected to a headless content back end (svc) as the person who gave you their token: you see and may do '
      + 'exactly what they may.',
    'Start with describe_schema to learn the collections, their fields (types, notes, choices) and relations; read content '
      + 'with read_items (filter, sort, fields with relations by dot path), read_item and search_items.',
    settings.drafts_only
      ? 'Your creates and updates (create_item, update_item) are saved as drafts (content versions), not live: when a review '
        + 'workflow matches, the draft is submitted for review and a person approves it before it is published. Tell the user '
        + 'so; answer with the draft id you got back.'
      : 'Your creates and updates are saved as drafts for review by default; with draft: false they write the live item '
        + '(only when the user asks for it), and promote_version publishes a draft.',
    settings.allow_deletes ? 'delete_item deletes live items: only when the user asks for it.' : 'Deleting is turned off for agents.',
    `A call reads at most ${maxRows} rows; page with offset. Errors come back as {errors: [{message, extensions: {code}}]}: `
      + 'FORBIDDEN means no permission (or no such item), INVALID_PAYLOAD a value the schema refuses.',
  ];
  return lines.join('\n');
}

export function instructionsOf(settings: McpSettings, maxRows: number): string {
  return settings.system_prompt ?? defaultInstructions(settings, maxRows);
}
