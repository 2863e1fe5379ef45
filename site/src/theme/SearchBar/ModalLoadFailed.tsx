import React, { useEffect } from 'react';
import { createPortal } from 'react-dom';
import { SearchFailed } from '@site/src/search/SearchMessages';
import styles from './styles.module.css';

// Shown instead of the search dialog when its code could not be fetched (no network).
export default function ModalLoadFailed({ onClose }: { onClose: () => void; typedBefore?: () => string }): React.ReactNode {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && onClose();
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [onClose]);
  return createPortal(
    <div className={styles.backdrop} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={styles.dialog} role="dialog" aria-modal="true" aria-label="Search docs">
        <div className={styles.body}>
          <SearchFailed />
        </div>
      </div>
    </div>,
    document.body,
  );
}
