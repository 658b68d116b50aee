// The frame's router is the shared one in lib/, so features can link between their own pages.
export { usePathname } from '../lib/location.ts';
