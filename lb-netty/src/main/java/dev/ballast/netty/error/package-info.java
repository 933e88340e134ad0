/**
 * The typed failures a {@link dev.ballast.netty.BallastClient} reports, all subclasses of {@link
 * dev.ballast.netty.error.BallastException}: each says what happened and where (endpoint,
 * attempt, whether the request reached a server).
 */
package dev.ballast.netty.error;
