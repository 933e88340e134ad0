/**
 * HTTP request and response values for {@link dev.ballast.netty.BallastClient#http()} (HTTP/1.1)
 * and {@link dev.ballast.netty.BallastClient#http2()} (HTTP/2); the wire work is Netty's codecs.
 */
package dev.ballast.netty.http;
