import { downloadBlob } from '../../ui/download.ts';
import { type DashboardDocument, exportDocument, exportFileName } from './document.ts';

/** Saves the document as `<slug>.towpath-dashboard.json` (§9). */
export function downloadExport(document: DashboardDocument): void {
  downloadBlob(
    new Blob([exportDocument(document)], { type: 'application/json' }),
    exportFileName(document.title),
  );
}
