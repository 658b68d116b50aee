// SourceTab loaded when first shown: CodeMirror is about 357 KB of script (116 KB gzipped) that
// the Design view's forms do not need. Same props as SourceTab.
import { lazy, Suspense } from 'react';
import type { SourceTabProps } from './SourceTab.tsx';

const SourceTab = lazy(() => import('./SourceTab.tsx').then((module) => ({ default: module.SourceTab })));

export function LazySourceTab(props: SourceTabProps) {
  return (
    <Suspense fallback={<p role="status">Loading the source editor…</p>}>
      <SourceTab {...props} />
    </Suspense>
  );
}
