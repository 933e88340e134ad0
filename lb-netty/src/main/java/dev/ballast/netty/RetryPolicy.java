package dev.ballast.netty;

/**
 * Moved to {@link dev.ballast.netty.retry.RetryPolicy}; this alias of its factories lasts one
 * version. A final class cannot be aliased as a type: code that only calls the factories
 * ({@code .retryPolicy(RetryPolicy.defaults())}) compiles unchanged, code that declares a
 * variable of the old type must import the new one.
 *
 * @deprecated use {@link dev.ballast.netty.retry.RetryPolicy}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class RetryPolicy {

  private RetryPolicy() {}

  /** See {@link dev.ballast.netty.retry.RetryPolicy#defaults()}. */
  public static dev.ballast.netty.retry.RetryPolicy defaults() {
    return dev.ballast.netty.retry.RetryPolicy.defaults();
  }

  /** See {@link dev.ballast.netty.retry.RetryPolicy#none()}. */
  public static dev.ballast.netty.retry.RetryPolicy none() {
    return dev.ballast.netty.retry.RetryPolicy.none();
  }

  /** See {@link dev.ballast.netty.retry.RetryPolicy#builder()}. */
  public static dev.ballast.netty.retry.RetryPolicy.Builder builder() {
    return dev.ballast.netty.retry.RetryPolicy.builder();
  }
}
