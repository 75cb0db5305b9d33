/** Being built in this change. */
import { SectionLayout } from '../ui/SectionLayout.tsx';

export default function MessagingModule() {
  return <SectionLayout title="Messaging" sections={[]}><div className="main-pane"><header className="page-header"><h1>Messaging</h1></header></div></SectionLayout>;
}
