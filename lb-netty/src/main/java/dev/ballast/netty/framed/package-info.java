/**
 * The framed binary protocol: length-prefixed frames carrying a request id, so that many
 * requests share one connection; its codec ({@link dev.ballast.netty.framed.FrameDecoder},
 * {@link dev.ballast.netty.framed.FrameEncoder}) and its server ({@link
 * dev.ballast.netty.framed.FramedServer}).
 */
package dev.ballast.netty.framed;
