// The start of every link the screens hand out (share, invite, reset). A page opened on the
// workstation itself is on 127.0.0.1, which no colleague can open, so the LAN door says where people
// reach it (a configured public URL or its LAN address); without an answer, the page's own origin.
import { useQuery } from '@tanstack/react-query';

const LINKS_ROUTE = '/api/links';

async function fetchLinkBase(): Promise<string | null> {
  const response = await fetch(LINKS_ROUTE, { cache: 'no-store' });
  if (!response.ok) return null;
  const body = (await response.json()) as { base?: unknown };
  return typeof body.base === 'string' ? body.base : null;
}

/** The origin handed-out links start with. */
export function useLinkBase(): string {
  const { data } = useQuery({ queryKey: ['link-base'], queryFn: fetchLinkBase, staleTime: Infinity });
  return data ?? window.location.origin;
}
