import { useRef } from 'react';
import { type DashboardDocument, IMPORT_LIMIT_BYTES, ImportError, importDocument } from './document.ts';

/** "Import JSON": picks a file and hands over its document, or the first problem as text. */
export function ImportButton({
  onDocument,
  onProblem,
}: {
  onDocument: (document: DashboardDocument) => void;
  onProblem: (message: string) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="button" onClick={() => input.current?.click()}>
        Import JSON
      </button>
      <input
        ref={input}
        type="file"
        accept="application/json,.json"
        hidden
        data-testid="import-json-file"
        onChange={async (event) => {
          const file = event.target.files?.[0];
          event.target.value = '';
          if (!file) return;
          try {
            // The size is checked before reading, so a huge file is never loaded.
            if (file.size > IMPORT_LIMIT_BYTES) throw new ImportError('Import file is larger than 5 MiB');
            onDocument(importDocument(await file.text(), file.size));
          } catch (error) {
            onProblem(error instanceof Error ? error.message : String(error));
          }
        }}
      />
    </>
  );
}
