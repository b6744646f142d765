package dev.ofl.docs;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The BOM manages every published module, at the project's version. */
class BomTest {
    /** Modules that are built but not published as libraries. */
    private static final Set<String> UNPUBLISHED = Set.of("ofl-bom", "ofl-bench", "ofl-docs-check", "ofl-fuzz",
            "ofl-example");

    private static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize().getParent();

    @Test
    void theBomListsEveryPublishedModule() throws Exception {
        Set<String> published = new TreeSet<>();
        for (String module : children(read(ROOT.resolve("pom.xml")).getDocumentElement(), "modules", "module")) {
            if (!UNPUBLISHED.contains(module)) {
                published.add(module);
            }
        }
        Element bom = read(ROOT.resolve("ofl-bom/pom.xml")).getDocumentElement();
        Element management = (Element) bom.getElementsByTagName("dependencyManagement").item(0);
        Set<String> managed = new TreeSet<>();
        NodeList artifacts = management.getElementsByTagName("artifactId");
        for (int i = 0; i < artifacts.getLength(); i++) {
            managed.add(artifacts.item(i).getTextContent().strip());
        }
        assertEquals(published, managed, "ofl-bom/pom.xml must manage exactly the published modules of pom.xml");
    }

    @Test
    void theBomHasTheProjectsVersion() throws Exception {
        String parent = children(read(ROOT.resolve("pom.xml")).getDocumentElement(), null, "version").get(0);
        String bom = children(read(ROOT.resolve("ofl-bom/pom.xml")).getDocumentElement(), null, "version").get(0);
        assertEquals(parent, bom, "ofl-bom has no parent (so users do not import the build's own pins); keep its "
                + "version equal to ofl-parent's");
    }

    private static Document read(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    /** Texts of the direct children named {@code name} of {@code parent}'s direct child {@code section}. */
    private static List<String> children(Element project, String section, String name) {
        Element container = project;
        if (section != null) {
            container = null;
            for (var node = project.getFirstChild(); node != null; node = node.getNextSibling()) {
                if (node instanceof Element element && element.getTagName().equals(section)) {
                    container = element;
                }
            }
        }
        List<String> texts = new ArrayList<>();
        for (var node = container.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                texts.add(element.getTextContent().strip());
            }
        }
        return texts;
    }
}
