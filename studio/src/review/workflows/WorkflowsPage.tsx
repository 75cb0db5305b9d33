/** Being built in this change. */
export default function WorkflowsPage(_props: { id?: string }) {
  return <div className="main-pane"><header className="page-header"><h1>WorkflowsPage</h1></header></div>;
}
