import React from 'react';
import Link from '@docusaurus/Link';

// The OpenAPI descriptions use a little Markdown: `code`, **bold**, *emphasis*, [links](...)
// and blank-line paragraphs. This renders exactly that (no HTML passes through).
const INLINE = /(`[^`]+`|\*\*[^*]+\*\*|\*[^*\s][^*]*\*|\[[^\]]+\]\([^)\s]+\))/g;

function inline(text: string): React.ReactNode[] {
  return text.split(INLINE).map((part, i) => {
    if (part.startsWith('`') && part.endsWith('`') && part.length > 1) return <code key={i}>{part.slice(1, -1)}</code>;
    if (part.startsWith('**') && part.endsWith('**') && part.length > 4) return <strong key={i}>{part.slice(2, -2)}</strong>;
    const link = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(part);
    if (link) return <Link key={i} to={link[2]}>{link[1]}</Link>;
    if (part.startsWith('*') && part.endsWith('*') && part.length > 2) return <em key={i}>{part.slice(1, -1)}</em>;
    return part;
  });
}

/** Inline Markdown inside an existing element (a table cell, a list item). */
export function InlineMarkdown({ text }: { text: string }): React.ReactNode {
  return <>{inline(text)}</>;
}

export default function Markdown({ text }: { text: string }): React.ReactNode {
  return (
    <>
      {text
        .split(/\n\s*\n/)
        .filter((p) => p.trim())
        .map((p, i) => (
          <p key={i}>{inline(p)}</p>
        ))}
    </>
  );
}
