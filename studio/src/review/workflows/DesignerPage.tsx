/** Being built in this change. */
export default function DesignerPage(_props: { id?: string }) {
  return <div className="main-pane"><header className="page-header"><h1>DesignerPage</h1></header></div>;
}
