import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';
import { GraphqlProvider } from '../lib/graphql/provider.tsx';

/** Everything the pages share: the REST query cache and the GraphQL client. */
export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(() => new QueryClient());
  return (
    <QueryClientProvider client={queryClient}>
      <GraphqlProvider>{children}</GraphqlProvider>
    </QueryClientProvider>
  );
}
