package dev.ballast.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Draws latency against percentile as an SVG, one line per balancer, like the figure of
 * Linkerd's "Beyond Round Robin": latency on a logarithmic axis, percentile on a log-of-nines
 * axis (x = -log10(1 - p/100): p90 at 1, p99 at 2, p99.9 at 3, p99.99 at 4), so the tail gets as
 * much room as the median. Written by hand, with no library.
 */
public final class LatencyChart {

  private static final String[] COLORS = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  private static final int WIDTH = 800;
  private static final int BASE_HEIGHT = 460;
  private static final int LEFT = 70;
  private static final int RIGHT = 240;
  private static final int LEGEND_STEP = 34;
  private static final int TOP_BASE = 40;
  private static final int BOTTOM = 50;
  private static final double MAX_NINES = 4; // p99.99
  private static final int POINTS = 400;

  private LatencyChart() {}

  /**
   * Returns the SVG text of the chart.
   *
   * @param title the heading
   * @param subtitle smaller text under it; each {@code "; "} starts a new line
   * @param timeoutMillis where to draw a dashed "timeout" line, or 0 for none
   * @param results one line each, in the legend's order
   */
  public static String svg(String title, String subtitle, double timeoutMillis, List<Result> results) {
    return svg(title, subtitle, timeoutMillis, results, null);
  }

  /**
   * Returns the SVG text of the chart, with each result's share of the calls sent to the slow
   * backend beside its line in the legend (a figure and a bar, full width at twice the fair share
   * of {@code 100 / backends} percent).
   *
   * @param slowShares per result, the percentage of its calls sent to the slow backend while it
   *     was slow; null for none
   */
  public static String svg(String title, String subtitle, double timeoutMillis, List<Result> results,
      double[] slowShares) {
    String[] sub = subtitle.split("; ");
    int top = TOP_BASE + 13 * (sub.length - 1);
    // room for the legend: one step per result
    int step = slowShares == null ? LEGEND_STEP : LEGEND_STEP + 10;
    int legend = step * results.size() + 20 - (BASE_HEIGHT - TOP_BASE - BOTTOM);
    int height = BASE_HEIGHT + 13 * (sub.length - 1) + Math.max(0, legend);
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (Result r : results) {
      if (r.histogram().getTotalCount() == 0) {
        continue;
      }
      lo = Math.min(lo, Math.max(0.001, r.histogram().getMinValue() / 1000.0));
      hi = Math.max(hi, r.maxMillis());
    }
    if (hi == 0) {
      lo = 1;
      hi = 10;
    }
    double yMin = Math.pow(10, Math.floor(Math.log10(lo)));
    double yMax = Math.pow(10, Math.ceil(Math.log10(hi)));
    if (yMax <= yMin) {
      yMax = yMin * 10;
    }
    double plotW = WIDTH - LEFT - RIGHT;
    double plotH = height - top - BOTTOM;
    double ly0 = Math.log10(yMin);
    double ly1 = Math.log10(yMax);

    StringBuilder s = new StringBuilder();
    s.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
            + " font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, height, WIDTH, height));
    s.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
    s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
        LEFT, escape(title)));
    for (int i = 0; i < sub.length; i++) {
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555\">%s</text>%n",
          LEFT, 33 + 13 * i, escape(sub[i])));
    }
    // Grid and axes.
    String[] xLabels = {"p0", "p90", "p99", "p99.9", "p99.99"};
    for (int k = 0; k <= MAX_NINES; k++) {
      double x = LEFT + plotW * k / MAX_NINES;
      s.append(line(x, top, x, top + plotH, "#ddd"));
      s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>%n",
          x, top + plotH + 18, xLabels[k]));
    }
    double p50x = LEFT + plotW * (-Math.log10(0.5)) / MAX_NINES;
    s.append(line(p50x, top, p50x, top + plotH, "#eee"));
    s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#888\">p50</text>%n",
        p50x, top + plotH + 18));
    for (int d = (int) Math.round(ly0); d <= Math.round(ly1); d++) {
      double y = top + plotH - plotH * (d - ly0) / (ly1 - ly0);
      s.append(line(LEFT, y, LEFT + plotW, y, "#ddd"));
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n",
          LEFT - 6, y + 4, msLabel(Math.pow(10, d))));
      for (int m = 2; m <= 9 && d < Math.round(ly1); m++) {
        double ym = top + plotH - plotH * (d + Math.log10(m) - ly0) / (ly1 - ly0);
        s.append(line(LEFT, ym, LEFT + 4, ym, "#999"));
      }
    }
    s.append(String.format(Locale.ROOT,
        "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#333\"/>%n",
        LEFT, top, plotW, plotH));
    s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">percentile</text>%n",
        LEFT + plotW / 2, height - 10));
    s.append(String.format(Locale.ROOT,
        "<text transform=\"translate(16,%.1f) rotate(-90)\" text-anchor=\"middle\">latency (ms, log scale)</text>%n",
        top + plotH / 2));
    if (timeoutMillis > yMin && timeoutMillis < yMax) {
      double ty = top + plotH - plotH * (Math.log10(timeoutMillis) - ly0) / (ly1 - ly0);
      s.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#666\" stroke-dasharray=\"6,4\"/>%n",
          LEFT, ty, LEFT + plotW, ty));
      s.append(String.format(Locale.ROOT,
          "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" fill=\"#666\">timeout %s</text>%n",
          LEFT + 6, ty - 4, msLabel(timeoutMillis)));
    }
    // One line per balancer.
    for (int i = 0; i < results.size(); i++) {
      Result r = results.get(i);
      String color = COLORS[i % COLORS.length];
      // past the palette, the colors come again with dashed lines
      String dash = i >= COLORS.length ? " stroke-dasharray=\"7,3\"" : "";
      if (r.histogram().getTotalCount() > 0) {
        StringBuilder pts = new StringBuilder();
        for (int k = 0; k <= POINTS; k++) {
          double nines = MAX_NINES * k / POINTS;
          double p = 100 * (1 - Math.pow(10, -nines));
          double ms = Math.max(yMin, r.histogram().getValueAtPercentile(p) / 1000.0);
          double x = LEFT + plotW * nines / MAX_NINES;
          double y = top + plotH - plotH * (Math.log10(ms) - ly0) / (ly1 - ly0);
          pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        s.append(String.format(Locale.ROOT,
            "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>%n", color,
            dash, pts.toString().trim()));
      }
      double ly = top + 10 + step * i;
      double lx = LEFT + plotW + 14;
      s.append(String.format(Locale.ROOT,
          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"%s/>%n",
          lx, ly, lx + 22, ly, color, dash));
      s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>%n", lx + 28, ly + 4,
          escape(r.balancer())));
      s.append(String.format(Locale.ROOT,
          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#555\">%.2f%% ok, p99 %s</text>%n",
          lx + 28, ly + 17, 100 * r.successRate(), msLabel(r.percentileMillis(99))));
      if (slowShares != null) {
        // the bar is full at twice the fair share; a balancer that ignores the slow backend sits at half
        double fair = 100.0 / Math.max(1, r.picksPerBackend().length);
        double w = 22 * Math.min(1, slowShares[i] / (2 * fair));
        s.append(String.format(Locale.ROOT,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"22\" height=\"5\" fill=\"#eee\"/>"
                + "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"5\" fill=\"%s\"/>%n",
            lx, ly + 12, lx, ly + 12, w, color));
        s.append(String.format(Locale.ROOT,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#555\">%.2f%% to the slow backend</text>%n",
            lx + 28, ly + 29, slowShares[i]));
      }
    }
    return s.append("</svg>\n").toString();
  }

  /** Writes {@link #svg} to a file, creating its directory. */
  public static void write(Path file, String title, String subtitle, double timeoutMillis,
      List<Result> results) throws IOException {
    write(file, title, subtitle, timeoutMillis, results, null);
  }

  /** Writes {@link #svg(String, String, double, List, double[])} to a file, creating its directory. */
  public static void write(Path file, String title, String subtitle, double timeoutMillis,
      List<Result> results, double[] slowShares) throws IOException {
    Report.createParent(file);
    Files.writeString(file, svg(title, subtitle, timeoutMillis, results, slowShares));
  }

  private static String line(double x1, double y1, double x2, double y2, String color) {
    return String.format(Locale.ROOT,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>%n", x1, y1, x2, y2, color);
  }

  private static String msLabel(double ms) {
    return ms >= 1000 ? g3(ms / 1000) + " s" : g3(ms) + " ms";
  }

  private static String g3(double v) {
    String s = String.format(Locale.ROOT, "%.3g", v);
    if (s.indexOf('.') >= 0 && s.indexOf('e') < 0) {
      s = s.replaceAll("0+$", "");
      s = s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }
    return s;
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
