package dev.ballast.netty;

/**
 * Moved to {@link dev.ballast.netty.pool.PoolConfig}; this alias of its factories lasts one
 * version. A final class cannot be aliased as a type: code that only calls the factories
 * ({@code .pool(PoolConfig.builder()...build())}) compiles unchanged, code that declares a
 * variable of the old type must import the new one.
 *
 * @deprecated use {@link dev.ballast.netty.pool.PoolConfig}
 */
@Deprecated(since = "0.1.0", forRemoval = true)
public final class PoolConfig {

  private PoolConfig() {}

  /** See {@link dev.ballast.netty.pool.PoolConfig#defaults()}. */
  public static dev.ballast.netty.pool.PoolConfig defaults() {
    return dev.ballast.netty.pool.PoolConfig.defaults();
  }

  /** See {@link dev.ballast.netty.pool.PoolConfig#builder()}. */
  public static dev.ballast.netty.pool.PoolConfig.Builder builder() {
    return dev.ballast.netty.pool.PoolConfig.builder();
  }
}
