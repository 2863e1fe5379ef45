import React from 'react';
import ApiPopout from '@site/src/components/ApiReference/Popout';
import doc from '@site/src/api/admin';
import examples from '@site/data/api-examples.json';

export default function AdminApiPopout(): React.ReactNode {
  return <ApiPopout api="admin" doc={doc} examples={examples} />;
}
