/** Being built in this change: timed publishing of a version (and unpublishing of the item) from the item editor. */
export interface ScheduleControlProps {
  collection: string;
  /** The item's primary key as a string (for new content: the key the version will create). */
  item: string;
  /** The version open in the editor, or null on the main item. */
  version: { id: string; key: string; name: string | null; status: string } | null;
}

export function ScheduleControl(_props: ScheduleControlProps) {
  return null;
}
