/**
 * The settings of per-endpoint outlier detection: {@link
 * dev.ballast.netty.outlier.OutlierDetection}.
 */
package dev.ballast.netty.outlier;
