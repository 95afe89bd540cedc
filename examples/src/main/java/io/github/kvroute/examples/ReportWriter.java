package io.github.kvroute.examples;

import com.google.common.html.HtmlEscapers;
import io.github.kvroute.sim.SimulationResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Writes the comparison report: {@code results.csv}, PNG charts rendered with XChart (TTFT CDF per
 * policy, goodput against offered load, per-replica work over time, prefix hit ratio) and a
 * {@code report.html} that shows them with the table.
 */
final class ReportWriter {
  /** One scenario (or one variant of it) and everything measured on it. */
  record Section(String title, String description, List<SimulationResult> results,
      Map<String, List<double[]>> goodputByLoad, Map<String, CapacityTable.Sweep> sweeps) {}

  private final Path dir;

  ReportWriter(Path dir) {
    this.dir = dir;
  }

  /** Writes every file and returns the path of {@code report.html}. */
  Path write(String command, List<Section> sections) throws IOException {
    Files.createDirectories(dir);
    StringBuilder csv = new StringBuilder(CapacityTable.csvHeader()).append('\n');
    StringBuilder html = new StringBuilder();
    html.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>kvroute-sim report</title>")
        .append("<style>body{font-family:sans-serif;margin:2em;max-width:1400px}")
        .append("table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;")
        .append("padding:3px 6px;text-align:right}td:first-child,th:first-child{text-align:left}")
        .append("img{max-width:100%;margin:6px 0}.grid{display:flex;flex-wrap:wrap;gap:8px}")
        .append(".grid img{width:440px}code{background:#f4f4f4;padding:2px 4px}</style></head><body>")
        .append("<h1>kvroute-sim comparison</h1><p>Reproduce with <code>")
        .append(esc(command)).append("</code>. Raw numbers: <a href=\"results.csv\">results.csv</a>.")
        .append(" Every number is from virtual time except <code>decision_us_*</code> (wall clock).</p>");
    int index = 0;
    for (Section s : sections) {
      String prefix = sections.size() == 1 ? "" : "s" + index + "-";
      for (SimulationResult r : s.results()) {
        String row = sections.size() == 1 ? r.csvRow()
            : r.csvRow().replaceFirst("^[^,]*", r.policy() + "@" + variantLabel(s.title()));
        csv.append(CapacityTable.csvRow(row, r, s.sweeps().get(r.policy()))).append('\n');
      }
      html.append("<h2>").append(esc(s.title())).append("</h2><p>").append(esc(s.description()))
          .append("</p>").append(table(s.results()));
      html.append("<h3>Time to first token</h3><img src=\"").append(ttftCdf(prefix, s))
          .append("\" alt=\"TTFT CDF per policy\">");
      if (!s.sweeps().isEmpty()) {
        html.append("<h3>Capacity at SLO</h3><pre>").append(esc(CapacityTable.render(s.sweeps())))
            .append("</pre>");
      }
      if (!s.goodputByLoad().isEmpty()) {
        html.append("<h3>Goodput against offered load (the knee)</h3><img src=\"")
            .append(goodputVsLoad(prefix, s)).append("\" alt=\"goodput vs offered load\">");
      }
      html.append("<h3>Prefix hit ratio</h3><img src=\"").append(hitRatio(prefix, s))
          .append("\" alt=\"prefix hit ratio per policy\">");
      html.append("<h3>Work per replica over time (imbalance)</h3><div class=\"grid\">");
      for (SimulationResult r : s.results()) {
        html.append("<img src=\"").append(work(prefix, r)).append("\" alt=\"work per replica, ")
            .append(esc(r.policy())).append("\">");
      }
      html.append("</div>");
      index++;
    }
    html.append("</body></html>\n");
    Files.writeString(dir.resolve("results.csv"), csv, StandardCharsets.UTF_8);
    Path report = dir.resolve("report.html");
    Files.writeString(report, html, StandardCharsets.UTF_8);
    return report;
  }

  private static String variantLabel(String title) {
    int slash = title.indexOf('/');
    return slash < 0 ? title : title.substring(slash + 1);
  }

  private static String table(List<SimulationResult> results) {
    StringBuilder t = new StringBuilder("<table><tr>");
    for (String h : SimulationResult.CSV_HEADER.split(",")) {
      t.append("<th>").append(esc(h)).append("</th>");
    }
    t.append("</tr>");
    for (SimulationResult r : results) {
      t.append("<tr>");
      for (String cell : r.csvRow().split(",", -1)) {
        t.append("<td>").append(esc(cell)).append("</td>");
      }
      t.append("</tr>");
    }
    return t.append("</table>").toString();
  }

  private String ttftCdf(String prefix, Section s) throws IOException {
    XYChart c = new XYChartBuilder().width(1000).height(560).title("TTFT CDF — " + s.title())
        .xAxisTitle("time to first token (ms, log scale)").yAxisTitle("fraction of completed requests")
        .build();
    c.getStyler().setLegendPosition(LegendPosition.OutsideE);
    c.getStyler().setXAxisLogarithmic(true);
    c.getStyler().setYAxisMin(0.0);
    c.getStyler().setYAxisMax(1.0);
    for (SimulationResult r : s.results()) {
      List<SimulationResult.CdfPoint> cdf = r.ttftCdf();
      if (cdf.isEmpty()) {
        continue;
      }
      double[] x = new double[cdf.size()];
      double[] y = new double[cdf.size()];
      for (int i = 0; i < x.length; i++) {
        x[i] = Math.max(0.01, cdf.get(i).millis());
        y[i] = cdf.get(i).fraction();
      }
      XYSeries series = c.addSeries(r.policy(), x, y);
      series.setMarker(SeriesMarkers.NONE);
    }
    return save(c, prefix + "ttft-cdf");
  }

  private String goodputVsLoad(String prefix, Section s) throws IOException {
    XYChart c = new XYChartBuilder().width(1000).height(560).title("Goodput vs offered load — "
        + s.title()).xAxisTitle("offered load (x the scenario's arrival rate)")
        .yAxisTitle("goodput (requests/s within the TTFT SLO)").build();
    c.getStyler().setLegendPosition(LegendPosition.OutsideE);
    for (Map.Entry<String, List<double[]>> e : s.goodputByLoad().entrySet()) {
      List<double[]> points = e.getValue();
      double[] x = new double[points.size()];
      double[] y = new double[points.size()];
      for (int i = 0; i < x.length; i++) {
        x[i] = points.get(i)[0];
        y[i] = points.get(i)[1];
      }
      c.addSeries(e.getKey(), x, y);
    }
    return save(c, prefix + "goodput-vs-load");
  }

  private String hitRatio(String prefix, Section s) throws IOException {
    CategoryChart c = new CategoryChartBuilder().width(1000).height(460)
        .title("Prefix hit ratio (reused / prompt tokens) — " + s.title()).yAxisTitle("hit ratio")
        .build();
    c.getStyler().setLegendVisible(false);
    c.getStyler().setXAxisLabelRotation(35);
    c.getStyler().setYAxisMin(0.0);
    List<String> names = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    for (SimulationResult r : s.results()) {
      names.add(r.policy());
      values.add(r.prefixHitRatio());
    }
    c.addSeries("prefix hit ratio", names, values);
    return save(c, prefix + "hit-ratio");
  }

  private String work(String prefix, SimulationResult r) throws IOException {
    List<long[]> buckets = r.replicaWork();
    XYChart c = new XYChartBuilder().width(560).height(320)
        .title(String.format(Locale.ROOT, "%s (imbalance %.2f)", r.policy(), r.imbalance()))
        .xAxisTitle("simulated time (s)").yAxisTitle("tokens / bucket").build();
    c.getStyler().setLegendPosition(LegendPosition.InsideNE);
    c.getStyler().setLegendVisible(buckets.size() <= 8);
    for (int replica = 0; replica < buckets.size(); replica++) {
      long[] w = buckets.get(replica);
      double[] x = new double[w.length];
      double[] y = new double[w.length];
      for (int i = 0; i < w.length; i++) {
        x[i] = i * r.workBucketMillis() / 1000.0;
        y[i] = w[i];
      }
      XYSeries series = c.addSeries("replica " + replica, x, y);
      series.setMarker(SeriesMarkers.NONE);
    }
    return save(c, prefix + "work-" + r.policy().replaceAll("[^a-z0-9-]", "_"));
  }

  private String save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, String name)
      throws IOException {
    BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapFormat.PNG);
    return name + ".png";
  }

  private static String esc(String s) {
    return HtmlEscapers.htmlEscaper().escape(s);
  }
}
