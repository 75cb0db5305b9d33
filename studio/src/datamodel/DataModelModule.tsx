/** Being built in this change. */
import { SectionLayout } from '../ui/SectionLayout.tsx';

export default function DataModelModule() {
  return <SectionLayout title="Data model" sections={[]}><div className="main-pane"><header className="page-header"><h1>Data model</h1></header></div></SectionLayout>;
}
