/** The settings of each endpoint's connection pool: {@link dev.ballast.netty.pool.PoolConfig}. */
package dev.ballast.netty.pool;
