package dev.ballast.grpc.internal;

import dev.ballast.core.subset.RequestLabels;
import io.grpc.CallOptions;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.Metadata;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds a call's request labels: the {@link CallOptions} key if set, else the headers {@code
 * <prefix><key>} for every key of every selector (an absent or empty header means no such
 * label). Header keys are made once per config.
 *
 * <p>The common case, one label header, is served from a per-key cache of {@link RequestLabels}
 * by value (up to {@value #CACHE_LIMIT} values a key, then built per call), so such picks
 * allocate only the header value gRPC decodes.
 */
final class RequestLabelReader {

  static final int CACHE_LIMIT = 1024;

  private final String[] keys;
  private final Metadata.Key<String>[] headers;
  private final ConcurrentHashMap<String, RequestLabels>[] single;
  private final CallOptions.Key<RequestLabels> option;

  @SuppressWarnings("unchecked")
  RequestLabelReader(List<List<String>> selectors, String prefix,
      CallOptions.Key<RequestLabels> option) {
    TreeSet<String> all = new TreeSet<>();
    for (List<String> s : selectors) {
      all.addAll(s);
    }
    this.keys = all.toArray(new String[0]);
    this.headers = new Metadata.Key[keys.length];
    this.single = new ConcurrentHashMap[keys.length];
    for (int i = 0; i < keys.length; i++) {
      headers[i] = Metadata.Key.of(prefix + keys[i], Metadata.ASCII_STRING_MARSHALLER);
      single[i] = new ConcurrentHashMap<>();
    }
    this.option = option;
  }

  RequestLabels read(PickSubchannelArgs args) {
    RequestLabels fromOption = args.getCallOptions().getOption(option);
    if (fromOption != null) {
      return fromOption;
    }
    Metadata md = args.getHeaders();
    int firstKey = -1;
    String firstValue = null;
    String[] found = null;
    int n = 0;
    for (int i = 0; i < keys.length; i++) {
      String v = md.get(headers[i]);
      if (v == null || v.isEmpty()) {
        continue;
      }
      if (firstKey < 0) {
        firstKey = i;
        firstValue = v;
        continue;
      }
      if (found == null) {
        found = new String[keys.length * 2];
        found[n++] = keys[firstKey];
        found[n++] = firstValue;
      }
      found[n++] = keys[i];
      found[n++] = v;
    }
    if (firstKey < 0) {
      return RequestLabels.empty();
    }
    if (found != null) {
      return RequestLabels.of(Arrays.copyOf(found, n));
    }
    ConcurrentHashMap<String, RequestLabels> cache = single[firstKey];
    RequestLabels labels = cache.get(firstValue);
    if (labels == null) {
      labels = RequestLabels.of(keys[firstKey], firstValue);
      if (cache.size() < CACHE_LIMIT) {
        cache.putIfAbsent(firstValue, labels);
      }
    }
    return labels;
  }
}
