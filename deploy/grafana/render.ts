// Renders row and panel specs with @grafana/grafana-foundation-sdk's panel builders onto a dashboard builder.
// Runs in Node.

import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import * as bargauge from '@grafana/grafana-foundation-sdk/bargauge';
import * as common from '@grafana/grafana-foundation-sdk/common';
import * as sdk from '@grafana/grafana-foundation-sdk/dashboard';
import * as prometheus from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as table from '@grafana/grafana-foundation-sdk/table';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { DATASOURCE } from './datasource';
import { TABLE_LABELS, type PanelSpec, type RowSpec } from './panel-spec';
import { TESTID_TAG } from './promql';

function refId(i: number): string {
  return String.fromCharCode('A'.charCodeAt(0) + i);
}

function targets(spec: PanelSpec): prometheus.DataqueryBuilder[] {
  return spec.queries.map((q, i) => {
    const b = new prometheus.DataqueryBuilder()
      .refId(refId(i))
      .datasource(DATASOURCE)
      .expr(q.expr)
      .legendFormat(q.legend);
    if (q.table === true || q.instant === true) b.instant();
    else b.range();
    if (q.table) b.format(prometheus.PromQueryFormat.Table);
    return b;
  });
}

/** The builder methods the four panel kinds share (each SDK panel builder has them). */
interface FieldPanelBuilder extends cog.Builder<sdk.Panel> {
  id(id: number): this;
  title(title: string): this;
  description(description: string): this;
  datasource(datasource: common.DataSourceRef): this;
  height(h: number): this;
  span(w: number): this;
  targets(targets: cog.Builder<cog.Dataquery>[]): this;
  unit(unit: string): this;
  min(min: number): this;
  max(max: number): this;
  decimals(decimals: number): this;
  colorScheme(color: cog.Builder<sdk.FieldColor>): this;
  thresholds(thresholds: cog.Builder<sdk.ThresholdsConfig>): this;
}

function withCommon<B extends FieldPanelBuilder>(b: B, spec: PanelSpec, id: number): B {
  b.id(id)
    .title(spec.title)
    .description(spec.description)
    .datasource(DATASOURCE)
    .height(spec.h)
    .span(spec.w)
    .targets(targets(spec))
    .unit(spec.unit);
  if (spec.min !== undefined) b.min(spec.min);
  if (spec.max !== undefined) b.max(spec.max);
  if (spec.decimals !== undefined) b.decimals(spec.decimals);
  const color = spec.type === 'stat' ? sdk.FieldColorModeId.Thresholds : sdk.FieldColorModeId.PaletteClassic;
  return b
    .colorScheme(new sdk.FieldColorBuilder().mode(color))
    .thresholds(
      new sdk.ThresholdsConfigBuilder()
        .mode(sdk.ThresholdsMode.Absolute)
        .steps(spec.thresholds?.steps ?? [{ color: 'green', value: null }]),
    );
}

function lastValue(): common.ReduceDataOptionsBuilder {
  return new common.ReduceDataOptionsBuilder().calcs(['lastNotNull']).fields('').values(false);
}

function tablePanel(spec: PanelSpec, id: number): table.PanelBuilder {
  const columns = spec.columns ?? [];
  // Instant table queries give one frame per query with a "Value #<refId>" column; merge joins them on the labels.
  const renameByName = Object.fromEntries(columns.map((c, i) => [`Value #${refId(i)}`, c.name]));
  const indexByName = Object.fromEntries([...TABLE_LABELS, ...columns.map((c) => c.name)].map((name, i) => [name, i]));
  const b = withCommon(new table.PanelBuilder(), spec, id)
    .cellOptions({ type: common.TableCellDisplayMode.Auto })
    .showHeader(true)
    .cellHeight(common.TableCellHeight.Sm)
    .footer(new common.TableFooterOptionsBuilder().show(false).reducer(['sum']))
    .sortBy([new common.TableSortByFieldStateBuilder().displayName('context').desc(false)])
    .transformations([
      { id: 'merge', options: {} },
      { id: 'organize', options: { excludeByName: { Time: true, [TESTID_TAG]: true }, indexByName, renameByName } },
      {
        id: 'convertFieldType',
        options: {
          conversions: [
            { targetField: 'context', destinationType: 'number' },
            { targetField: 'concurrency', destinationType: 'number' },
          ],
          fields: {},
        },
      },
    ]);
  for (const c of columns) b.overrideByName(c.name, [{ id: 'unit', value: c.unit }]);
  return b;
}

function renderPanel(spec: PanelSpec, id: number): FieldPanelBuilder {
  switch (spec.type) {
    case 'timeseries':
      return withCommon(new timeseries.PanelBuilder(), spec, id)
        .drawStyle(common.GraphDrawStyle.Line)
        .lineWidth(1)
        .fillOpacity(spec.stack ? 30 : 0)
        .showPoints(common.VisibilityMode.Never)
        .spanNulls(false)
        .stacking(
          new common.StackingConfigBuilder()
            .mode(spec.stack ? common.StackingMode.Normal : common.StackingMode.None)
            .group('A'),
        )
        .thresholdsStyle(new common.GraphThresholdsStyleConfigBuilder().mode(
          spec.thresholds?.dashed ? common.GraphThresholdsStyleMode.Dashed : common.GraphThresholdsStyleMode.Off,
        ))
        .legend(
          new common.VizLegendOptionsBuilder()
            .displayMode(common.LegendDisplayMode.Table)
            .placement(common.LegendPlacement.Bottom)
            .showLegend(true)
            .calcs(['lastNotNull', 'max']),
        )
        .tooltip(
          new common.VizTooltipOptionsBuilder().mode(common.TooltipDisplayMode.Multi).sort(common.SortOrder.Descending),
        );
    case 'stat':
      return withCommon(new stat.PanelBuilder(), spec, id)
        .reduceOptions(lastValue())
        .colorMode(common.BigValueColorMode.Value)
        .graphMode(common.BigValueGraphMode.None)
        .justifyMode(common.BigValueJustifyMode.Auto)
        .orientation(common.VizOrientation.Auto)
        .textMode(common.BigValueTextMode.Auto);
    case 'bargauge':
      return withCommon(new bargauge.PanelBuilder(), spec, id)
        .reduceOptions(lastValue())
        .displayMode(common.BarGaugeDisplayMode.Basic)
        .orientation(common.VizOrientation.Horizontal)
        .showUnfilled(true)
        .minVizHeight(10)
        .minVizWidth(0)
        .valueMode(common.BarGaugeValueMode.Color);
    case 'table':
      return tablePanel(spec, id);
  }
}

/**
 * Adds the rows and their panels, numbered from 1 in order; the SDK places them left to right, top to bottom on
 * Grafana's 24-column grid. A collapsed row carries its panels inside it; an open row is followed by them.
 */
export function addRows(b: sdk.DashboardBuilder, rows: readonly RowSpec[]): sdk.DashboardBuilder {
  let id = 1;
  for (const row of rows) {
    const rowBuilder = new sdk.RowBuilder(row.title).id(id++).datasource(DATASOURCE).collapsed(row.collapsed);
    const panels = row.panels.map((spec) => renderPanel(spec, id++));
    if (row.collapsed) {
      for (const p of panels) rowBuilder.withPanel(p);
      b.withRow(rowBuilder);
    } else {
      b.withRow(rowBuilder);
      for (const p of panels) b.withPanel(p);
    }
  }
  return b;
}
