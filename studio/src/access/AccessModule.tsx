/** Being built in this change. */
import { SectionLayout } from '../ui/SectionLayout.tsx';

export default function AccessModule() {
  return <SectionLayout title="Access" sections={[]}><div className="main-pane"><header className="page-header"><h1>Access</h1></header></div></SectionLayout>;
}
