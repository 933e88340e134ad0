package dev.ballast.core.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records what a logger logs while open (through java.util.logging, where {@link System.Logger}
 * goes by default), as {@code "LEVEL message"} lines, kept off the console; closing puts the
 * logger back as it was.
 *
 * <pre>{@code
 * try (LogRecorder log = LogRecorder.on(PolicyMetrics.class.getName())) {
 *   ...
 *   assertThat(log.lines()).anySatisfy(l -> assertThat(l).startsWith("WARNING ..."));
 * }
 * }</pre>
 */
public final class LogRecorder implements AutoCloseable {

  private final Logger logger;
  private final boolean parents;
  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord r) {
      lines.add(r.getLevel() + " " + r.getMessage());
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  private LogRecorder(String name) {
    logger = Logger.getLogger(name);
    parents = logger.getUseParentHandlers();
    logger.setUseParentHandlers(false);
    logger.addHandler(handler);
  }

  /** Starts recording the logger of a name (a class's name, for its {@code System.Logger}). */
  public static LogRecorder on(String loggerName) {
    return new LogRecorder(loggerName);
  }

  /** Returns the lines logged so far, {@code "LEVEL message"} each, oldest first. */
  public List<String> lines() {
    return List.copyOf(lines);
  }

  /** Stops recording and gives the logger its console back. */
  @Override
  public void close() {
    logger.removeHandler(handler);
    logger.setUseParentHandlers(parents);
  }
}
