/**
 * Non-API code of lb-netty, which may change at any time: the engine (the chain of modules and
 * the per-call and per-attempt contexts they pass down and up, the endpoints, connection pools,
 * outlier detection's state), transport selection and the protocol dispatchers.
 */
package dev.ballast.netty.internal;
