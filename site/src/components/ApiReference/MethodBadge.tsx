import React from 'react';

// An HTTP method as a coloured badge (colours in src/css/custom.css, .api-method--<method>).
export default function MethodBadge({ method }: { method: string }): React.ReactNode {
  return <span className={`api-method api-method--${method.toLowerCase()}`}>{method.toUpperCase()}</span>;
}
