// Every widget type and how it is drawn; an unknown type says so and never breaks its neighbours.
import { Component, type ComponentType, type ReactNode, useId } from 'react';
import { WIDGET_LABELS, type Widget } from '../document.ts';
import type { HubSnapshot } from '../realtime/hub.ts';
import { GaugeWidget, IndicatorWidget, TextWidget } from './basic.tsx';
import { BarChartWidget, SparklineWidget } from './charts.tsx';
import { StatusListWidget, TableWidget } from './lists.tsx';
import { BaseWidget, HtmlWidget, PictureWidget } from './media.tsx';
import type { WidgetProps } from './props.ts';

export const WIDGETS: Record<string, ComponentType<WidgetProps>> = {
  text: TextWidget,
  gauge: GaugeWidget,
  indicator: IndicatorWidget,
  sparkline: SparklineWidget,
  table: TableWidget,
  'bar-chart': BarChartWidget,
  'status-list': StatusListWidget,
  picture: PictureWidget,
  html: HtmlWidget,
  base: BaseWidget,
};

class WidgetBoundary extends Component<{ children: ReactNode }, { failed: string | null }> {
  override state = { failed: null as string | null };
  static getDerivedStateFromError(error: unknown) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
  override render() {
    if (this.state.failed) return <p className="widget__note">This widget failed: {this.state.failed}</p>;
    return this.props.children;
  }
}

/** One widget: a region named by its title (the type's label when empty), shown above its value. */
export function WidgetView({ widget, snapshot }: { widget: Widget; snapshot: HubSnapshot }) {
  const headingId = useId();
  const Draw = WIDGETS[widget.type];
  const title = widget.title?.trim() || WIDGET_LABELS[widget.type] || widget.type;
  return (
    <section
      className={`widget widget--${widget.type}`}
      aria-labelledby={headingId}
      data-widget-id={widget.id}
    >
      <h3 id={headingId} className="widget__title">
        {title}
      </h3>
      <WidgetBoundary>
        {Draw ? <Draw widget={widget} snapshot={snapshot} /> : <p>Unsupported widget type {widget.type}</p>}
      </WidgetBoundary>
    </section>
  );
}
