import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { AppFrame } from './app/AppFrame.tsx';
import { Providers } from './app/providers.tsx';
import './app/app.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <Providers>
      <AppFrame />
    </Providers>
  </StrictMode>,
);
