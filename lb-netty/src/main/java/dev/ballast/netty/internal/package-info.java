/** Non-API code of lb-netty: transport selection, protocol dispatchers. May change at any time. */
package dev.ballast.netty.internal;
