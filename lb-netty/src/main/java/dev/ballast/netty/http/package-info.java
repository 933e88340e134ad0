/**
 * HTTP/1.1 request and response values for {@link dev.ballast.netty.BallastClient#http()}; the
 * wire work is Netty's HTTP codec and aggregator.
 */
package dev.ballast.netty.http;
