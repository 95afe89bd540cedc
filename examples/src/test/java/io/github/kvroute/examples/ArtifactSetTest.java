package io.github.kvroute.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The published artifact set agrees with itself: the BOM lists every module that is deployed and no
 * other, and the modules that are not deployed (examples, router-benchmarks) also stay out of the
 * release bundle and build no sources or javadoc jars.
 */
class ArtifactSetTest {
  private static final Path ROOT = Path.of("..");

  private static Document pom(String module) throws Exception {
    Path file = module.isEmpty() ? ROOT.resolve("pom.xml") : ROOT.resolve(module).resolve("pom.xml");
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
  }

  private static List<String> texts(Document doc, String tag) {
    NodeList nodes = doc.getElementsByTagName(tag);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < nodes.getLength(); i++) {
      out.add(nodes.item(i).getTextContent().trim());
    }
    return out;
  }

  private static String property(Document doc, String name) {
    List<String> values = texts(doc, name);
    return values.isEmpty() ? "" : values.get(0);
  }

  @Test
  void theBomListsEveryDeployedModule_andTheUnpublishedOnesStayOutOfTheRelease() throws Exception {
    Document root = pom("");
    Set<String> published = new TreeSet<>();
    Set<String> unpublished = new TreeSet<>();
    for (String module : texts(root, "module")) {
      if (module.equals("router-bom")) {
        continue;
      }
      Document pom = pom(module);
      boolean skipped = property(pom, "maven.deploy.skip").equals("true");
      (skipped ? unpublished : published).add(module);
      if (skipped) {
        assertThat(property(pom, "maven.source.skip")).as(module).isEqualTo("true");
        assertThat(property(pom, "maven.javadoc.skip")).as(module).isEqualTo("true");
      }
    }
    Document bom = pom("router-bom");
    Element managed = (Element) bom.getElementsByTagName("dependencyManagement").item(0);
    Set<String> listed = new TreeSet<>();
    NodeList ids = managed.getElementsByTagName("artifactId");
    for (int i = 0; i < ids.getLength(); i++) {
      listed.add(ids.item(i).getTextContent().trim());
    }

    assertThat(published).contains("router-api", "router-core", "router-policies");
    assertThat(unpublished).containsExactlyInAnyOrder("examples", "router-benchmarks");
    assertThat(listed).as("router-bom's dependencyManagement").isEqualTo(published);
    assertThat(texts(root, "artifact")).as("the release profile's excludeArtifacts")
        .containsExactlyInAnyOrderElementsOf(unpublished);
    assertThat(texts(bom, "version").get(0)).as("the BOM's version")
        .isEqualTo(texts(root, "version").get(0));
  }
}
