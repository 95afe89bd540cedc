package io.github.kvroute.examples;

import io.github.kvroute.advisors.AutoscaleAdvisor;
import io.github.kvroute.advisors.AutoscaleConfig;
import io.github.kvroute.advisors.FleetSignals;
import io.github.kvroute.advisors.ScaleAdvice;
import io.github.kvroute.advisors.WorkerThroughput;
import io.github.kvroute.sim.FleetController;
import io.github.kvroute.sim.FleetProbe;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Feeds an {@link AutoscaleAdvisor} from the simulator's fleet samples, the way a host would feed it
 * from its router and the engines' metrics, and keeps the timeline: offered load, the advice, and the
 * replicas it would have added; when applying, it asks the simulation to start standby replicas up to
 * the advised count (each serving after the cold start). The sample's queueing delay is the first router's estimate on the
 * best serving replica; queued work and KV usage are the engines' own metrics. The simulator does not
 * track which hot prefixes a replica alone holds, so every replica is equally warm here (the
 * scale-down then names the first).
 */
final class AutoscaleTimeline implements FleetController {
  /** One sample: time, requests arrived since the previous one, and the advice after it. */
  record Point(double seconds, long arrivals, ScaleAdvice advice) {}

  private final AutoscaleAdvisor advisor;
  /** The latest sample's virtual time: the advisor's ticker. */
  private long nowNanos;
  private final long intervalMillis;
  private final int fleetReplicas;
  private final boolean apply;
  private final List<Point> points = new ArrayList<>();
  private final List<ScaleAdvice> changes = new ArrayList<>();
  private long arrivals;
  private long promptTokens;
  private long outputTokens;

  /** An advisor by {@code config} for a fleet of {@code fleetReplicas}, on the samples' time. */
  AutoscaleTimeline(AutoscaleConfig config, WorkerThroughput worker, long intervalMillis,
      int fleetReplicas, boolean apply) {
    this.apply = apply;
    this.advisor = AutoscaleAdvisor.create(config, worker, fleetReplicas, () -> nowNanos);
    this.intervalMillis = intervalMillis;
    this.fleetReplicas = fleetReplicas;
    advisor.subscribe(changes::add);
  }

  @Override
  public long intervalMillis() {
    return intervalMillis;
  }

  @Override
  public void sample(Sample s) {
    nowNanos = s.nowNanos();
    double queue = Double.POSITIVE_INFINITY;
    long queued = 0;
    double kv = 0;
    List<FleetSignals.ReplicaWarmth> warmth = new ArrayList<>();
    for (FleetProbe.Replica r : s.replicas()) {
      if (!r.ready()) {
        continue;
      }
      queue = Math.min(queue, r.estimatedQueueMillis());
      queued += r.queuedPrefillTokens();
      kv = Math.max(kv, r.kvUtilization());
      warmth.add(new FleetSignals.ReplicaWarmth(r.replicaId(), 0, 0));
    }
    ScaleAdvice a = advisor.observe(new FleetSignals(s.arrivals() - arrivals,
        s.arrivedPromptTokens() - promptTokens, s.arrivedOutputTokens() - outputTokens,
        Double.isInfinite(queue) ? 0 : queue, queued, kv, warmth));
    points.add(new Point(s.nowNanos() / 1e9, s.arrivals() - arrivals, a));
    arrivals = s.arrivals();
    promptTokens = s.arrivedPromptTokens();
    outputTokens = s.arrivedOutputTokens();
  }

  /** Applying: the advised count (the simulation starts standby replicas); else none started. */
  @Override
  public int wantedReplicas() {
    return apply ? advisor.advice().replicas() : 0;
  }

  List<Point> points() {
    return points;
  }

  List<ScaleAdvice> changes() {
    return changes;
  }

  /** Rows every {@code everySeconds}: offered req/s over that span, and the advice at its end. */
  List<List<String>> table(int everySeconds) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("t_s", "offered_rps", "load", "forecast", "advised", "added", "queue_ms",
        "kv"));
    long sum = 0;
    double since = 0;
    for (Point p : points) {
      sum += p.arrivals();
      if (p.seconds() - since >= everySeconds - 1e-9) {
        ScaleAdvice a = p.advice();
        rows.add(List.of(fmt("%.0f", p.seconds()), fmt("%.1f", sum / (p.seconds() - since)),
            fmt("%.2f", a.loadNow()), fmt("%.2f", a.forecastLoad()), String.valueOf(a.replicas()),
            String.valueOf(Math.max(0, a.replicas() - fleetReplicas)),
            fmt("%.0f", a.queueDelayMillis()), fmt("%.2f", a.kvUtilization())));
        sum = 0;
        since = p.seconds();
      }
    }
    return rows;
  }

  /** Writes {@code autoscale.csv} (every sample) and {@code autoscale.png}; returns the PNG. */
  Path write(Path dir, String title) throws IOException {
    Files.createDirectories(dir);
    StringBuilder csv = new StringBuilder(
        "t_s,arrivals,load,forecast,advised_replicas,added_replicas,queue_ms,kv,reason\n");
    int n = points.size();
    double[] t = new double[n];
    double[] rps = new double[n];
    double[] advised = new double[n];
    double[] fleet = new double[n];
    double[] added = new double[n];
    double seconds = intervalMillis / 1e3;
    for (int i = 0; i < n; i++) {
      Point p = points.get(i);
      ScaleAdvice a = p.advice();
      t[i] = p.seconds();
      rps[i] = p.arrivals() / seconds;
      advised[i] = a.replicas();
      fleet[i] = fleetReplicas;
      added[i] = Math.max(0, a.replicas() - fleetReplicas);
      csv.append(fmt("%.1f,%d,%.4f,%.4f,%d,%d,%.1f,%.4f,\"%s\"%n", p.seconds(), p.arrivals(),
          a.loadNow(), a.forecastLoad(), a.replicas(), Math.max(0, a.replicas() - fleetReplicas),
          a.queueDelayMillis(), a.kvUtilization(), a.reason().replace("\"", "'")));
    }
    Files.writeString(dir.resolve("autoscale.csv"), csv);
    XYChart c = new XYChartBuilder().width(1100).height(560).title(title)
        .xAxisTitle("simulated time (s)").yAxisTitle("offered requests/s").build();
    c.getStyler().setLegendPosition(LegendPosition.InsideNW);
    c.getStyler().setYAxisGroupPosition(1, org.knowm.xchart.style.Styler.YAxisPosition.Right);
    c.setYAxisGroupTitle(1, "replicas");
    XYSeries offered = c.addSeries("offered load (req/s)", t, rps);
    offered.setMarker(SeriesMarkers.NONE);
    XYSeries advice = c.addSeries("advised replicas", t, advised);
    advice.setMarker(SeriesMarkers.NONE);
    advice.setYAxisGroup(1);
    XYSeries have = c.addSeries(apply ? "replicas at the start (standbys started on advice)"
        : "fleet replicas (not scaled in this run)", t, fleet);
    have.setMarker(SeriesMarkers.NONE);
    have.setYAxisGroup(1);
    XYSeries plus = c.addSeries("replicas the advice adds", t, added);
    plus.setMarker(SeriesMarkers.NONE);
    plus.setYAxisGroup(1);
    Path png = dir.resolve("autoscale.png");
    BitmapEncoder.saveBitmap(c, png.toString(), BitmapFormat.PNG);
    return png;
  }

  private static String fmt(String template, Object... args) {
    return String.format(Locale.ROOT, template, args);
  }
}
