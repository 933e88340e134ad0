package dev.ballast.grpc.internal;

import dev.ballast.core.subset.RequestLabels;
import io.grpc.CallOptions;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.Metadata;
import java.util.List;
import java.util.TreeSet;

/**
 * Finds a call's request labels: the {@link CallOptions} key if set, else the headers {@code
 * <prefix><key>} for every key of every selector (an absent or empty header means no such
 * label). Header keys are made once per config.
 */
final class RequestLabelReader {

  private final String[] keys;
  private final Metadata.Key<String>[] headers;
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
    for (int i = 0; i < keys.length; i++) {
      headers[i] = Metadata.Key.of(prefix + keys[i], Metadata.ASCII_STRING_MARSHALLER);
    }
    this.option = option;
  }

  RequestLabels read(PickSubchannelArgs args) {
    RequestLabels fromOption = args.getCallOptions().getOption(option);
    if (fromOption != null) {
      return fromOption;
    }
    Metadata md = args.getHeaders();
    String[] found = null;
    int n = 0;
    for (int i = 0; i < keys.length; i++) {
      String v = md.get(headers[i]);
      if (v == null || v.isEmpty()) {
        continue;
      }
      if (found == null) {
        found = new String[keys.length * 2];
      }
      found[n++] = keys[i];
      found[n++] = v;
    }
    if (found == null) {
      return RequestLabels.empty();
    }
    return RequestLabels.of(java.util.Arrays.copyOf(found, n));
  }
}
