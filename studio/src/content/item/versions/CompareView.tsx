/** Being built in this change: a version compared with the main item, field by field. */
export function CompareView(_props: { versionId: string; collection: string }) {
  return null;
}
