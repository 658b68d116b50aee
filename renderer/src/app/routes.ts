// The route table: each page is loaded lazily, so opening one area never loads another's code
// (three.js stays out of the dashboards). An area without an entry shows a placeholder.
// To add a page: one line here, e.g. `'/tasks': () => import('../features/tasks/TasksPage.tsx')`;
// the page gets every address under its prefix and routes the rest itself.
import { type ComponentType, type LazyExoticComponent, lazy } from 'react';

type PageModule = { default: ComponentType };

const auth = () => import('../features/auth/AuthPage.tsx');

const PAGES: Record<string, () => Promise<PageModule>> = {
  '/winding': () => import('../features/winding/WindingPage.tsx'),
  '/tasks': () => import('../features/tasks/TasksPage.tsx'),
  '/dashboards': () => import('../features/dashboards/DashboardsPage.tsx'),
  // The shared view of a dashboard for anyone holding its link: no account, no frame features.
  '/s': () => import('../features/dashboards/SharedDashboardPage.tsx'),
  '/admin': () => import('../features/admin/AdminPage.tsx'),
  '/sign-in': auth,
  '/register': auth,
  '/invite': auth,
  '/reset': auth,
};

const lazyPages = new Map<string, LazyExoticComponent<ComponentType>>();

/** The lazily loaded page for an address, or undefined when no page owns it yet. */
export function pageFor(pathname: string): LazyExoticComponent<ComponentType> | undefined {
  const prefix = Object.keys(PAGES).find((key) => pathname === key || pathname.startsWith(`${key}/`));
  if (!prefix) return undefined;
  let page = lazyPages.get(prefix);
  if (!page) {
    page = lazy(PAGES[prefix] as () => Promise<PageModule>);
    lazyPages.set(prefix, page);
  }
  return page;
}
