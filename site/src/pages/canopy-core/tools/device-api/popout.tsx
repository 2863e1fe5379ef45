import React from 'react';
import ApiPopout from '@site/src/components/ApiReference/Popout';
import doc from '@site/src/api/device';

export default function DeviceApiPopout(): React.ReactNode {
  return <ApiPopout api="device" doc={doc} />;
}
