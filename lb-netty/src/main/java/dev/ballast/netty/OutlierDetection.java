package dev.ballast.netty;

/**
 * Moved to {@link dev.ballast.netty.outlier.OutlierDetection}; this alias of its factories lasts
 * one version. A final class cannot be aliased as a type: code that only calls the factories
 * compiles unchanged, code that declares a variable of the old type must import the new one.
 *
 * @deprecated use {@link dev.ballast.netty.outlier.OutlierDetection}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class OutlierDetection {

  private OutlierDetection() {}

  /** See {@link dev.ballast.netty.outlier.OutlierDetection#defaults()}. */
  public static dev.ballast.netty.outlier.OutlierDetection defaults() {
    return dev.ballast.netty.outlier.OutlierDetection.defaults();
  }

  /** See {@link dev.ballast.netty.outlier.OutlierDetection#disabled()}. */
  public static dev.ballast.netty.outlier.OutlierDetection disabled() {
    return dev.ballast.netty.outlier.OutlierDetection.disabled();
  }

  /** See {@link dev.ballast.netty.outlier.OutlierDetection#builder()}. */
  public static dev.ballast.netty.outlier.OutlierDetection.Builder builder() {
    return dev.ballast.netty.outlier.OutlierDetection.builder();
  }
}
