import type { Widget } from '../document.ts';
import type { HubSnapshot } from '../realtime/hub.ts';

export interface WidgetProps {
  widget: Widget;
  snapshot: HubSnapshot;
}
