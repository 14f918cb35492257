/** Rectangles on the chart's grid, for the custom series that draw bars and bands. */
import type { CustomSeriesRenderItemAPI, CustomSeriesRenderItemParams } from 'echarts';

/** A rectangle in px. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The grid a custom series draws on. ECharts types `coordSys` loosely (it serves every
 * coordinate system); on a cartesian grid, as here, it is the grid's rectangle.
 */
export function gridOf(params: CustomSeriesRenderItemParams): Rect {
  return params.coordSys as unknown as Rect;
}

/** The px position of a point in data coordinates (a cartesian grid gives two numbers). */
export function pixelOf(api: CustomSeriesRenderItemAPI, x: number, y: number): [number, number] {
  return api.coord([x, y]) as [number, number];
}

/** `rect` cut to the grid, or undefined when nothing of it is inside (zoomed out of view). */
export function clip(rect: Rect, params: CustomSeriesRenderItemParams): Rect | undefined {
  const grid = gridOf(params);
  return echarts.graphic.clipRectByRect(rect, {
    x: grid.x,
    y: grid.y,
    width: grid.width,
    height: grid.height,
  });
}

/**
 * The rectangle from (x0, y0) to (x1, y1) in data coordinates, at least `minWidth` px wide so
 * that an instant's fault or claim stays visible.
 */
export function rectBetween(
  api: CustomSeriesRenderItemAPI,
  x0: number,
  x1: number,
  y0: number,
  y1: number,
  minWidth: number,
): Rect {
  const a = pixelOf(api, x0, y0);
  const b = pixelOf(api, x1, y1);
  return {
    x: a[0],
    y: Math.min(a[1], b[1]),
    width: Math.max(b[0] - a[0], minWidth),
    height: Math.abs(b[1] - a[1]),
  };
}
