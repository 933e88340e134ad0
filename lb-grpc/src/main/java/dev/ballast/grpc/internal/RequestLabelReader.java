package dev.ballast.grpc.internal;

import dev.ballast.core.subset.RequestLabels;
import io.grpc.CallOptions;
import io.grpc.LoadBalancer.PickSubchannelArgs;
import io.grpc.InternalMetadata;
import io.grpc.Metadata;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Finds a call's request labels: the {@link CallOptions} key if set, else the headers {@code
 * <prefix><key>} for every key of every selector (an absent or empty header means no such
 * label). Header keys are made once per config.
 *
 * <p>Header values are read as the bytes gRPC holds ({@link InternalMetadata#keyOf} with a
 * trusted ASCII marshaller: no String is decoded) and mapped to {@link RequestLabels} of that one
 * label through a small per-key cache ({@value #CACHE_SIZE} entries, indexed by the bytes' hash,
 * each holding its bytes and labels), so that a pick whose header value was seen before
 * allocates nothing; a value missing from the cache is decoded and takes its slot. Several label
 * headers on one call are combined into new labels, per call.
 */
final class RequestLabelReader {

  static final int CACHE_SIZE = 64;

  private final String[] keys;
  private final Metadata.Key<RequestLabels>[] headers;
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
      headers[i] = InternalMetadata.keyOf(prefix + keys[i], new LabelCache(keys[i]));
    }
    this.option = option;
  }

  RequestLabels read(PickSubchannelArgs args) {
    RequestLabels fromOption = args.getCallOptions().getOption(option);
    if (fromOption != null) {
      return fromOption;
    }
    Metadata md = args.getHeaders();
    RequestLabels first = null;
    String[] found = null;
    int n = 0;
    for (Metadata.Key<RequestLabels> header : headers) {
      RequestLabels one = md.get(header);
      if (one == null) {
        continue;
      }
      if (first == null) {
        first = one;
        continue;
      }
      if (found == null) {
        found = new String[keys.length * 2];
        found[n++] = first.key(0);
        found[n++] = first.value(0);
      }
      found[n++] = one.key(0);
      found[n++] = one.value(0);
    }
    if (first == null) {
      return RequestLabels.empty();
    }
    return found == null ? first : RequestLabels.of(Arrays.copyOf(found, n));
  }

  /**
   * Reads one label header's value bytes as the labels {@code key=value}, from a direct-mapped
   * cache of recent values; an empty value is no label (null).
   */
  private static final class LabelCache
      implements InternalMetadata.TrustedAsciiMarshaller<RequestLabels> {
    private final String key;
    private final AtomicReferenceArray<Entry> entries = new AtomicReferenceArray<>(CACHE_SIZE);

    LabelCache(String key) {
      this.key = key;
    }

    @Override
    public RequestLabels parseAsciiString(byte[] serialized) {
      if (serialized.length == 0) {
        return null;
      }
      int slot = Arrays.hashCode(serialized) & (CACHE_SIZE - 1);
      Entry e = entries.get(slot);
      if (e != null && Arrays.equals(e.bytes, serialized)) {
        return e.labels;
      }
      RequestLabels labels = RequestLabels.of(key,
          new String(serialized, StandardCharsets.US_ASCII));
      entries.set(slot, new Entry(serialized.clone(), labels));
      return labels;
    }

    @Override
    public byte[] toAsciiString(RequestLabels value) {
      return value.value(0).getBytes(StandardCharsets.US_ASCII);
    }
  }

  private static final class Entry {
    final byte[] bytes;
    final RequestLabels labels;

    Entry(byte[] bytes, RequestLabels labels) {
      this.bytes = bytes;
      this.labels = labels;
    }
  }
}
