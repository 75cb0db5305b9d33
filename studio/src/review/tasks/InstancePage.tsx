/** Being built in this change. */
export default function InstancePage(_props: { id?: string }) {
  return <div className="main-pane"><header className="page-header"><h1>InstancePage</h1></header></div>;
}
