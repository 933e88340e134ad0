package dev.ballast.core.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The state-change log's rate limit, on a manual clock: a flapping endpoint's 100 changes a
 * second give at most {@code BURST + seconds} lines, each change is either logged or counted in
 * the next line's summary, and one kind's flood leaves the other kinds' lines alone.
 */
class StateChangeLogTest {

  private final AtomicLong now = new AtomicLong();
  private final List<String> lines = new ArrayList<>();
  private final StateChangeLog log = new StateChangeLog("client orders", new Capture(), now::get);

  @Test
  void aFlappingEndpointLogsABoundedNumberOfLinesAndCountsTheRest() {
    int seconds = 10;
    int changes = 0;
    for (int i = 0; i < 100 * seconds; i++) { // 100 changes a second
      log.log(StateChangeLog.Kind.EJECTION, Level.WARNING,
          "endpoint 127.0.0.1:7001 " + (i % 2 == 0 ? "ejected" : "reinstated"));
      changes++;
      now.addAndGet(10_000_000);
    }
    assertThat(lines).hasSizeBetween(StateChangeLog.BURST,
        StateChangeLog.BURST + seconds / StateChangeLog.REFILL_SECONDS);
    assertThat(lines.get(0)).isEqualTo("client orders: endpoint 127.0.0.1:7001 ejected");
    long suppressed = 0;
    Pattern summary = Pattern.compile("\\((\\d+) more ejection changes suppressed\\)$");
    for (String l : lines) {
      Matcher m = summary.matcher(l);
      if (m.find()) {
        suppressed += Long.parseLong(m.group(1));
      }
    }
    // what the last summary has not reported yet is still counted, for the next line
    log.log(StateChangeLog.Kind.EJECTION, Level.INFO, "endpoint 127.0.0.1:7001 reinstated");
    Matcher last = summary.matcher(lines.get(lines.size() - 1));
    assertThat(last.find()).isTrue();
    suppressed += Long.parseLong(last.group(1));
    assertThat(lines.size() - 1 + suppressed).as("every change logged or counted")
        .isEqualTo(changes);
  }

  @Test
  void oneKindsFloodLeavesTheOthersAlone() {
    for (int i = 0; i < 1000; i++) {
      log.log(StateChangeLog.Kind.REJECTED_UPDATE, Level.WARNING, "entry e" + i + " skipped");
    }
    assertThat(lines).hasSize(StateChangeLog.BURST);
    assertThat(log.log(StateChangeLog.Kind.SOURCE, Level.WARNING, "source zk is down")).isTrue();
    assertThat(lines).last().isEqualTo("client orders: source zk is down");
    now.addAndGet(1_000_000_000L * StateChangeLog.REFILL_SECONDS); // one more line earned
    assertThat(log.log(StateChangeLog.Kind.REJECTED_UPDATE, Level.WARNING, "entry x skipped"))
        .isTrue();
    assertThat(lines).last().isEqualTo(
        "client orders: entry x skipped (990 more rejected update changes suppressed)");
  }

  private final class Capture implements System.Logger {
    @Override
    public String getName() {
      return StateChangeLog.LOGGER;
    }

    @Override
    public boolean isLoggable(Level level) {
      return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
      lines.add(msg);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      lines.add(format);
    }

    @Override
    public void log(Level level, Supplier<String> msg) {
      lines.add(msg.get());
    }
  }
}
