// The route table: each area's page is loaded lazily, so opening one area never loads another's
// code (three.js stays out of the dashboards). An area without an entry shows a placeholder.
// To add an area's page: one line here, e.g. `'/tasks': () => import('../features/tasks/TasksPage.tsx')`.
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';

type PageModule = { default: ComponentType };

const PAGES: Record<string, () => Promise<PageModule>> = {
  '/winding': () => import('../features/winding/WindingPage.tsx'),
  '/tasks': () => import('../features/tasks/TasksPage.tsx'),
};

const lazyPages = new Map<string, LazyExoticComponent<ComponentType>>();

/** The lazily loaded page of an area, or undefined when the area has none yet. */
export function pageFor(areaPath: string): LazyExoticComponent<ComponentType> | undefined {
  const load = PAGES[areaPath];
  if (!load) return undefined;
  let page = lazyPages.get(areaPath);
  if (!page) {
    page = lazy(load);
    lazyPages.set(areaPath, page);
  }
  return page;
}
