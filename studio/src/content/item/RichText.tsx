/** Markdown and HTML fields: the source in a textarea, and a preview a toggle away. The Markdown preview is built
 * as React elements (no HTML string), the HTML preview is the source with scripts, event handlers, frames and
 * javascript: links taken out (and the page's CSP refuses inline script anyway). */
import { useMemo, useState, type ReactNode } from 'react';

interface EditorProps {
  id: string;
  value: string;
  onChange(value: string): void;
  disabled: boolean;
  required: boolean;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

function Editor({ preview, mode, ...props }: EditorProps & { preview: (text: string) => ReactNode; mode: string }) {
  // Read-only text is read, so it opens in the preview.
  const [showing, setShowing] = useState(props.disabled && props.value !== '');
  const { id, value, onChange, ...rest } = props;
  return (
    <div className="rich">
      <div className="rich-bar" role="group" aria-label={`${mode} view`}>
        <button type="button" className="btn btn-small btn-ghost" aria-pressed={!showing} onClick={() => setShowing(false)}>Edit</button>
        <button type="button" className="btn btn-small btn-ghost" aria-pressed={showing} onClick={() => setShowing(true)}>Preview</button>
        <span className="muted rich-mode">{mode}</span>
      </div>
      {showing
        ? <div className="rich-preview" id={id} tabIndex={0} aria-label={`${mode} preview`}>{value ? preview(value) : <p className="muted">Nothing to preview.</p>}</div>
        : <textarea {...rest} id={id} className="code" rows={8} value={value} onChange={(e) => onChange(e.target.value)} />}
    </div>
  );
}

export function MarkdownEditor(props: EditorProps) {
  return <Editor {...props} mode="Markdown" preview={(t) => <Markdown text={t} />} />;
}

export function HtmlEditor(props: EditorProps) {
  return <Editor {...props} mode="HTML" preview={(t) => <SafeHtml html={t} />} />;
}

function SafeHtml({ html }: { html: string }) {
  const clean = useMemo(() => sanitize(html), [html]);
  return <div dangerouslySetInnerHTML={{ __html: clean }} />;
}

const DROP = 'script,style,iframe,frame,frameset,object,embed,link,meta,base,form,input,button,textarea,select';

export function sanitize(html: string): string {
  const doc = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html');
  doc.body.querySelectorAll(DROP).forEach((el) => el.remove());
  doc.body.querySelectorAll('*').forEach((el) => {
    for (const attr of [...el.attributes]) {
      const name = attr.name.toLowerCase();
      if (name.startsWith('on') || name === 'style' || name === 'srcset') el.removeAttribute(attr.name);
      else if ((name === 'href' || name === 'src' || name === 'xlink:href' || name === 'action') && !/^(https?:|mailto:|\/|#)/i.test(attr.value.trim())) el.removeAttribute(attr.name);
    }
  });
  return doc.body.innerHTML;
}

/** A small Markdown reader for the preview: headings, paragraphs, lists, quotes, code blocks, rules, and inline
 * emphasis, code and links. */
export function Markdown({ text }: { text: string }) {
  const blocks: ReactNode[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  let key = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') { i++; continue; }
    if (line.startsWith('```')) {
      const code: string[] = [];
      i++;
      while (i < lines.length && !lines[i].startsWith('```')) code.push(lines[i++]);
      i++;
      blocks.push(<pre key={key++}><code>{code.join('\n')}</code></pre>);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(heading[1].length + 1, 6);
      const H = `h${level}` as 'h2';
      blocks.push(<H key={key++}>{inline(heading[2])}</H>);
      i++;
      continue;
    }
    if (/^(-{3,}|\*{3,})\s*$/.test(line)) { blocks.push(<hr key={key++} />); i++; continue; }
    if (/^>\s?/.test(line)) {
      const quote: string[] = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) quote.push(lines[i++].replace(/^>\s?/, ''));
      blocks.push(<blockquote key={key++}>{inline(quote.join(' '))}</blockquote>);
      continue;
    }
    const bullet = /^\s*[-*+]\s+/;
    const numbered = /^\s*\d+[.)]\s+/;
    if (bullet.test(line) || numbered.test(line)) {
      const ordered = numbered.test(line);
      const re = ordered ? numbered : bullet;
      const items: ReactNode[] = [];
      while (i < lines.length && re.test(lines[i])) items.push(<li key={items.length}>{inline(lines[i++].replace(re, ''))}</li>);
      blocks.push(ordered ? <ol key={key++}>{items}</ol> : <ul key={key++}>{items}</ul>);
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i].trim() !== '' && !/^(#{1,6}\s|```|>|\s*[-*+]\s|\s*\d+[.)]\s)/.test(lines[i])) para.push(lines[i++]);
    if (para.length === 0) para.push(lines[i++]);
    blocks.push(<p key={key++}>{inline(para.join(' '))}</p>);
  }
  return <>{blocks}</>;
}

function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  const re = /(`[^`]+`)|(\*\*[^*]+\*\*|__[^_]+__)|(\*[^*]+\*|_[^_]+_)|(\[([^\]]+)\]\(([^)\s]+)\))/g;
  let last = 0;
  let m: RegExpExecArray | null;
  let k = 0;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1]) out.push(<code key={k++}>{m[1].slice(1, -1)}</code>);
    else if (m[2]) out.push(<strong key={k++}>{inline(m[2].slice(2, -2))}</strong>);
    else if (m[3]) out.push(<em key={k++}>{inline(m[3].slice(1, -1))}</em>);
    else if (m[4]) {
      const href = m[6];
      out.push(/^(https?:|mailto:|\/|#)/i.test(href) ? <a key={k++} href={href} target="_blank" rel="noreferrer noopener">{m[5]}</a> : m[5]);
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
