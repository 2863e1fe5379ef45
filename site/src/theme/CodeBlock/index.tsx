import React from 'react';
import CodeBlock from '@theme-original/CodeBlock';
import type CodeBlockType from '@theme/CodeBlock';
import type { WrapperProps } from '@docusaurus/types';
// Before any code block renders, so shell and TOML blocks are highlighted.
import '@site/src/prism/languages';

type Props = WrapperProps<typeof CodeBlockType>;

export default function CodeBlockWrapper(props: Props): React.ReactNode {
  return <CodeBlock {...props} />;
}
