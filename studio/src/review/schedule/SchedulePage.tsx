/** Being built in this change. */
export default function SchedulePage(_props: { id?: string }) {
  return <div className="main-pane"><header className="page-header"><h1>SchedulePage</h1></header></div>;
}
