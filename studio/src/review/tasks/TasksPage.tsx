/** Being built in this change. */
export default function TasksPage(_props: { id?: string }) {
  return <div className="main-pane"><header className="page-header"><h1>TasksPage</h1></header></div>;
}
